<?xml version="1.0"?>
<!-- String functions: translate, substring(-before/-after), concat, normalize-space,
     string-length, contains, starts-with, format-number; escaping of markup characters. -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="xml" indent="no" omit-xml-declaration="yes"/>
  <xsl:variable name="lower" select="'abcdefghijklmnopqrstuvwxyz'"/>
  <xsl:variable name="upper" select="'ABCDEFGHIJKLMNOPQRSTUVWXYZ'"/>
  <xsl:template match="/catalog">
    <labels catalog="{@id}">
      <xsl:for-each select="book">
        <xsl:variable name="t" select="normalize-space(title)"/>
        <label id="{@id}">
          <xsl:attribute name="code">
            <xsl:value-of select="concat(translate(substring(@genre, 1, 3), $lower, $upper), '-', @year, '-',
                                         string-length($t), '-', substring(translate(author, ' ', '_'), 1, 8))"/>
          </xsl:attribute>
          <upper><xsl:value-of select="translate($t, $lower, $upper)"/></upper>
          <surname><xsl:value-of select="substring-after(author, ' ')"/></surname>
          <initial><xsl:value-of select="substring(author, 1, 1)"/>.</initial>
          <xsl:if test="contains($t, ' and ')">
            <split before="{substring-before($t, ' and ')}" after="{substring-after($t, ' and ')}"/>
          </xsl:if>
          <xsl:if test="starts-with(keywords, 'a') or contains(keywords, '&amp;')">
            <flag><xsl:value-of select="concat('[', normalize-space(keywords), ']')"/></flag>
          </xsl:if>
          <price eur="{format-number(price * 0.92, '#,##0.00')}" pct="{format-number(price div 100, '0.0%')}"/>
          <blurb><xsl:value-of select="normalize-space(blurb)"/></blurb>
        </label>
      </xsl:for-each>
    </labels>
  </xsl:template>
</xsl:stylesheet>
