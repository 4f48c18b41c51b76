<?xml version="1.0"?>
<!-- Recursion and templates: a numbered table of contents over nested sections (apply-templates
     recursion, xsl:number), a recursive tokenizer of the keywords, a recursive running total. -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="xml" indent="no" omit-xml-declaration="yes"/>
  <xsl:template match="/catalog">
    <books catalog="{@id}">
      <xsl:apply-templates select="book"/>
      <totals>
        <xsl:call-template name="running-total">
          <xsl:with-param name="books" select="book"/>
          <xsl:with-param name="acc" select="0"/>
        </xsl:call-template>
      </totals>
    </books>
  </xsl:template>

  <xsl:template match="book">
    <book id="{@id}">
      <toc><xsl:apply-templates select="section"/></toc>
      <words>
        <xsl:call-template name="tokenize">
          <xsl:with-param name="text" select="normalize-space(keywords)"/>
        </xsl:call-template>
      </words>
    </book>
  </xsl:template>

  <xsl:template match="section">
    <entry depth="{count(ancestor::section) + 1}">
      <xsl:attribute name="number"><xsl:number level="multiple" count="section" format="1.1"/></xsl:attribute>
      <xsl:value-of select="heading"/>
      <xsl:apply-templates select="section"/>
    </entry>
  </xsl:template>

  <xsl:template name="tokenize">
    <xsl:param name="text"/>
    <xsl:param name="n" select="1"/>
    <xsl:if test="string-length($text) &gt; 0">
      <xsl:variable name="head">
        <xsl:choose>
          <xsl:when test="contains($text, ' ')"><xsl:value-of select="substring-before($text, ' ')"/></xsl:when>
          <xsl:otherwise><xsl:value-of select="$text"/></xsl:otherwise>
        </xsl:choose>
      </xsl:variable>
      <w n="{$n}" len="{string-length($head)}"><xsl:value-of select="$head"/></w>
      <xsl:call-template name="tokenize">
        <xsl:with-param name="text" select="substring-after($text, ' ')"/>
        <xsl:with-param name="n" select="$n + 1"/>
      </xsl:call-template>
    </xsl:if>
  </xsl:template>

  <xsl:template name="running-total">
    <xsl:param name="books"/>
    <xsl:param name="acc"/>
    <xsl:if test="$books">
      <xsl:variable name="now" select="$acc + $books[1]/price * $books[1]/stock"/>
      <at id="{$books[1]/@id}" value="{format-number($now, '0.00')}"/>
      <xsl:call-template name="running-total">
        <xsl:with-param name="books" select="$books[position() &gt; 1]"/>
        <xsl:with-param name="acc" select="$now"/>
      </xsl:call-template>
    </xsl:if>
  </xsl:template>
</xsl:stylesheet>
